

xPlaceholder*
dtype0
5
nIdentityx*
_class
loc:@nowhere*
T0"ª