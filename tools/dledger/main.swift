print("dledger")
