"""The context's layers, one module each: what the layer holds, turned into scored candidates (ContextItem).

Each layer maps its own scores to a relevance in [0, 1] and a decay in [0, 1] (see combine.py) and answers
a LayerResult (types.py); gather.py runs the layers a route needs.
"""
