"""choicelab: reproduce five studies of how language models make choices."""

__version__ = "0.1.0"
