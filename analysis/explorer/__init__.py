"""``trilab explore``: a local web explorer of Trike positions with the value of every move."""
