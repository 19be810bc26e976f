

xPlaceholder*
dtype0

fPlaceholder*
dtype0
A
nConv2Dxf*
T0*
strides
*
paddingFOO"ª