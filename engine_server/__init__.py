"""The Seven-Card Stud engine: the rules (``game``), live tables and their gRPC server."""
