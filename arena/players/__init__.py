"""Every built-in player: the simple strategies, the traditional (Chitarrella)
player and the search players."""
