import os

print 'hello', os.name
