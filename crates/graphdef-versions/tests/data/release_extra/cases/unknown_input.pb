

nIdentitynope*
T0"ª