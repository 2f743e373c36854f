"""Domain packages: artifact kinds registered through the framework's contract."""
