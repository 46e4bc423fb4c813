"""Alert rules over the store, their events, and the e-mails they send."""
