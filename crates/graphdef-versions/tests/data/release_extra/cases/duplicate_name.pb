

xPlaceholder*
dtype0

xPlaceholder*
dtype0"ª