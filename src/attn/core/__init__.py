"""The mailbox and attention core: registry, models, mailbox, attention controller."""
