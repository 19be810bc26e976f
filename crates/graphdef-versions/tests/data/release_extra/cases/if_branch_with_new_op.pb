

cPlaceholder*
dtype0


xPlaceholder*
dtype0
x
nStatelessIfcx*
then_branchR	
then_fn*
Tcond0
*
else_branchR	
else_fn*
Tin
2*
Tout
2‘
H

then_fn
a
y
iCheckPinneda*
T0"
y
i:output:0
E

else_fn
a
y
iIdentitya*
T0"
y
i:output:0"ª