"""The lobby REST API: accounts, wallets, quick games, hand history and fairness."""
