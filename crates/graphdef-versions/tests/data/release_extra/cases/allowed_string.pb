

xPlaceholder*
dtype0

fPlaceholder*
dtype0
A
nConv2Dxf*
strides
*
T0*
paddingFOO"ª