"""What the bot keeps of its games: match files, JSON event logs, the training queue.

Records observe the play; they never steer it.
"""
