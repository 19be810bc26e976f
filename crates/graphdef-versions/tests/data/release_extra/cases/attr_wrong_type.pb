

xPlaceholder*
dtype0

nIdentityx*
T"ª