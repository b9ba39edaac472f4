"""The one mark of an error a user can fix.

A :class:`UserError`'s message names what is wrong (the file, line, key or model) and how to fix it. The command line
and the workflow's jobs print that message alone; a job's log keeps the traceback (:func:`choicelab.workflow.log_to`).
Every other exception is a defect of ours and keeps its traceback.
"""


class UserError(Exception):
    """An error whose message names the input at fault and the fix."""
