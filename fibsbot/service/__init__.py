"""The daemon under a service manager: systemd's notify protocol and its watchdog
(``notify``), and the one-line state it shows in ``systemctl status`` (``status``)."""
