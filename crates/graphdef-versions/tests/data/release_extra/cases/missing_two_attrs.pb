


nConst"ª