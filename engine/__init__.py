"""The backgammon brain, no IO: packages by job, each importing only those below it:
``rules`` <- ``eval`` <- ``search`` <- ``cube`` <- ``players`` <- ``rollout``.
"""
