

xPlaceholder*
dtype0

nthen_fnxJ
H

then_fn
a
y
iCheckPinneda*
T0"
y
i:output:0"ª