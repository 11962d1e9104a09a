import OpenCoreData
print("Acquaintance demo: coming in the next commit")
