
6
PlaceholderPlaceholder*
dtype0*
shape:
*
IdentityIdentityPlaceholder*
T0
*
SubSubPlaceholderIdentity*
T0"