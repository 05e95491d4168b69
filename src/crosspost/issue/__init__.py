"""issue"""
