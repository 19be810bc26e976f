

xPlaceholder*
dtype0

yPlaceholder*
dtype0	

nAddV2xy*
T0"ª