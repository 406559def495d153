"""The FIBS protocol, sans-IO: text in, typed events out, and the match state machine.

Pure: nothing here opens a socket, reads a clock or touches a file; the network
layer (``fibsbot.client``) feeds it text and carries out what it answers.
``parser`` turns CLIP lines into the ``events``, ``board`` maps board lines to
engine positions, and ``match`` turns events into commands and decision requests.
``tests/test_layering.py`` keeps it pure.
"""
