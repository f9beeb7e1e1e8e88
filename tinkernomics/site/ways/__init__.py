"""The Ways to run page (pipeline step 6): every offer, and each run priced on all of them."""
