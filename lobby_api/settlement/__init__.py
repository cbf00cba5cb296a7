"""Settlement: closed seat sessions become wallet credits, exactly once (above the wallet)."""
