"""Site-wide passes over the finished site (pipeline step 6, after every feature's outputs)."""
