

xPlaceholder*
dtype0

nAddV2xxx*
T0"ª