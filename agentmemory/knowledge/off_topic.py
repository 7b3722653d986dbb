"""Questions no knowledge base should answer: small talk, requests about the user or the conversation.

The calibration of a knowledge base's relevance floor uses them as its negatives (with any the operator
adds): a floor is good when these find nothing and the base's own evaluation questions still do.
"""
from __future__ import annotations

OFF_TOPIC_QUESTIONS: tuple[str, ...] = (
    # Chinese: small talk, the user, the conversation, tasks that need no document
    "今天天气怎么样", "你好呀，最近怎么样？", "谢谢你的帮助！", "哈哈，好的", "我刚才说到哪了？",
    "早上好，今天有什么新鲜事吗？", "你叫什么名字？", "你是机器人吗？", "晚安，明天再聊",
    "帮我写一封请假邮件给老板", "把上面那段话翻译成英文", "帮我把这段文字改得更简洁一点",
    "我的预算是多少来着？", "你还记得我上次说的项目吗？", "帮我总结一下我们刚才聊的内容",
    "给我讲个笑话吧", "我今天有点累，不想上班", "周末去哪玩比较好？", "帮我算一下 37 乘以 48",
    "这句话有没有语病：我昨天去了超市买了苹果。", "你觉得我应该先学Python还是先学Java？",
    "帮我想一个团队周会的开场白", "我心情不好，陪我聊聊天", "嗯嗯，明白了，继续",
    "刚才那个回答太长了，简短一点", "好的，那就这样吧", "你能做什么？", "帮我列一个明天的待办清单",
    "我老板又让我加班了，怎么办", "现在几点了？",
    # English
    "How's it going?", "Thanks, that was helpful!", "Good morning! Any news today?", "What's your name?",
    "Can you help me write an email to my manager?", "Translate the previous paragraph into Chinese.",
    "Make that answer shorter, please.", "What did we talk about last time?", "Do you remember my budget?",
    "Tell me a joke.", "I'm tired today, let's just chat.", "Where should I go this weekend?",
    "What's 37 times 48?", "Is this sentence grammatical: me and him went home?", "Ugh, it's raining again.",
    "Summarize our conversation so far.", "Give me a to-do list for tomorrow.", "Okay, sounds good.",
    "What can you do?", "My boss wants me to work late again, any advice?", "lol thanks",
    "Write an opening line for our team meeting.", "Should I learn Python or Java first?",
    "How do I say no to a friend politely?", "What time is it?", "I feel a bit down today.",
    "Can you rephrase that more formally?", "Where were we?", "Have a good night!", "Let's continue.",
)
