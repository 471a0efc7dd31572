"""Reading shoppers' own words: intent and symptoms from a linear text classifier.

``features`` turns a message into word and character n-grams (used identically at
training and at request time); ``train`` fits the classifiers with scikit-learn when the
catalog is built; ``model.Understanding`` scores a message with the stored weights
(numpy only, no scikit-learn at request time); ``corpus`` reads the labelled corpus in
``data/nlu/``; ``evaluate`` computes the metrics the tests and ``make bench`` report.

``extraction`` finds part and model numbers, symptoms and the appliance, with the catalog
deciding what a token is.

May import: ``catalog``, ``protocol``, ``settings``; never ``store`` or ``live``
(siblings) or anything above.
"""
