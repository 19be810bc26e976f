#!/bin/sh
# Makes one venv per measured JAX release, `$VENVS/jax-<release>` (jax == jaxlib, CPU only),
# skipping any that already imports jaxlib at that version. jaxlib 0.11 and later ship wheels
# for CPython 3.12 and newer only; the older ones are installed on CPython 3.11.
#   VENVS=/work/venvs PY311=/usr/bin/python3.11 PY312=python3.12 sh venvs.sh [RELEASE...]
set -eu
VENVS=${VENVS:-/work/venvs}
PY311=${PY311:-python3.11}
PY312=${PY312:-python3.12}
RELEASES=${*:-"$(sed -n 's/^RELEASES = "\(.*\)"$/\1/p' "$(dirname "$0")/releases.txt" 2>/dev/null || true)"}
[ -n "$RELEASES" ] || RELEASES=$(grep -v '^#' "$(dirname "$0")/releases.txt")
for r in $RELEASES; do
  dir=$VENVS/jax-$r
  if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "import jaxlib, sys; sys.exit(jaxlib.__version__ != '$r')" 2>/dev/null; then
    echo "jax-$r: present"; continue
  fi
  case $r in 0.4.*|0.5.*|0.6.*|0.7.*|0.8.*|0.9.*|0.10.*) py=$PY311 ;; *) py=$PY312 ;; esac
  rm -rf "$dir"
  "$py" -m venv "$dir"
  "$dir/bin/pip" install -q "jax==$r" "jaxlib==$r"
  echo "jax-$r: $("$dir/bin/python" -c 'import jax, jaxlib; print(jax.__version__, jaxlib.__version__)')"
done
