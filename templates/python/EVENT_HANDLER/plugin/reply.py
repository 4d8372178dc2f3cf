"""What the character says back to a user's message."""


def reply_to(text: str) -> str:
    """Replace this with your own logic: call a model, look something up, start a workflow...
    The plugin writes whatever it returns."""
    return f"You said: {text}"
