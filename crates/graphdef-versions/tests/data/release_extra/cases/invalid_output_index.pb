

xPlaceholder*
dtype0

nIdentityx:1*
T0"ª