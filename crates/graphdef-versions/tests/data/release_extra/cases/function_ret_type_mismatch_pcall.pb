

xPlaceholder*
dtype0
I
nStatefulPartitionedCallx*
Tin
2*
Tout
2*
fR
fnB
@

fn
a
y
iIdentitya*
T0"
y
i:output:0"ª