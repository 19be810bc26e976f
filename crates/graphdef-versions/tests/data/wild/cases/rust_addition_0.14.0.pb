
,
xPlaceholder*
shape:*
dtype0
,
yPlaceholder*
shape:*
dtype0

zAddxy*
T0

initNoOp"