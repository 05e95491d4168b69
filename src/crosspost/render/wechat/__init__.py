"""wechat"""
