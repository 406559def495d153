"""What the bot's owner sees: the records read back, matches analysed, status and report."""
