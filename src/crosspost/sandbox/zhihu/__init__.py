"""zhihu"""
