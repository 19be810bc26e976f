

xPlaceholder*
dtype0


nfnxE
C

fn
a
y
iIdentitya*
T0"
ynope:output:0"ª