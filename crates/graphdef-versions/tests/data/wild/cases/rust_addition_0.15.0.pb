
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
shape:*
dtype0

zAddxy*
T0

initNoOp"