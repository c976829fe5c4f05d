"""lmtie_edu — helpers for the weight-tying lessons.

Importing the package is cheap on purpose: it pulls in no submodule. Each lesson imports the
module for its concept (``from lmtie_edu import embedding``); heavy optional libraries
(transformers, scikit-learn, gensim) are imported only inside the functions that need them.
"""

__version__ = "0.1.0"
