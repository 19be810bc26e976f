

xPlaceholder*
dtype0
I
nStatefulPartitionedCallx*
fR
fn*
Tin
2*
Tout
2B
@

fn
a
y
iIdentitya*
T0"
y
i:output:0"ª