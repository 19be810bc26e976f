
6
PlaceholderPlaceholder*
dtype0*
shape:
*
IdentityIdentityPlaceholder*
T0
)

Identity_1IdentityIdentity*
T0"