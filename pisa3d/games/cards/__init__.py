"""The Pisa card game: votes on trumps, tricks and order, a secret discard, then trick play."""
