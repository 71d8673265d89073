"""The tower shown to people: the presenter the core loads by name (``presenter``), the one
narrator of each event (``narration``), the statics hints (``hints``), a record made ready to watch
(``replay``), the box a view frames (``framing``, the ``live_framing`` part), tile and tower
meshes for the viewers (``meshes``, trimesh) and the layout figure (``layout_drawing``,
matplotlib). The top of the tower's imports: nothing else in the tower imports from here."""
