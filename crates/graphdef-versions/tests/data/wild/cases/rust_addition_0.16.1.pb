
,
xPlaceholder*
shape:*
dtype0
,
yPlaceholder*
dtype0*
shape:

zAddxy*
T0

initNoOp"†