"""The one error of the Chinese-edition tools."""


class TranslationError(Exception):
    """A lesson cannot be built or checked; the message names the lesson, the cell and what to do."""
