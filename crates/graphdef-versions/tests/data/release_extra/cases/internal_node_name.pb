

_xPlaceholder*
dtype0"ª