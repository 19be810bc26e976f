

xPlaceholder*
dtype0

nIdentityx*
T0



Identity"ª