import OpsrunKit
print("opsrun")
