"""Labelled tower scenes for physical-reasoning research (``pisa3d dataset``, docs/datasets.md).

Modules: ``spec.py`` (the experiment spec plus a ``[dataset]`` table), ``scenes.py`` (a game
played and each placement caught as a scene with its labels), ``labels.py`` (margins of every
tile and level, fall odds, observed fall rates, a second engine's verdict), ``render.py``
(PyBullet's TinyRenderer, headless and deterministic, optional random colours and light),
``store.py`` (one trial's rows, the build on the
experiments' runners and storage, the datasheet), ``reader.py`` (rows back as numpy arrays),
``sheet.py`` (a contact sheet of one scene), ``datasheet.py`` (DATASHEET.md), ``baseline.py``
(statics, fall odds and engines against the label), ``learned.py`` (a small image model, optional).
"""
