"""Choice-behaviour cards: one page per model summarising how it chooses, built from the five studies' tables.

Layers (pure functions, no torch):

* :mod:`.overlay` -- the card run: the studies' config at the card scale, with each study's model lists set to the
  card models that study applies to (by kind), and the targets that run asks for;
* :mod:`.panels` -- numbers: one :class:`~choicelab.card_entry.Panel` per registered study with a card entry
  (``choicelab.studies.<name>.card.CARD``: its title, the tables it reads, its panel builder, the model kinds it
  applies to), every headline number with its n, an interval and the papers' models on the same scale; this package
  names no study;
* :mod:`.render` -- figures, the generated summary sentences, the self-contained HTML (images inline), the PNG (the
  whole card as one page) and the index comparing the models.

docs/cards.md describes the card, what each panel reads and the card scale.
"""
