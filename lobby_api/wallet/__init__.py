"""The wallet: a double-entry ledger of player wallets, table escrows and the house."""
