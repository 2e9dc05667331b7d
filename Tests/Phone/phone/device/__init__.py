"""The phones: Bumble devices running the NavigationNotifier Server app."""
