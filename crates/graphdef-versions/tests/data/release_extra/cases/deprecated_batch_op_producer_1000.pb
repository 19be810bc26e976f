

xPlaceholder*
dtype0

nIdentityx*
T0
 
mBatchMatrixDiagx*
T0"è